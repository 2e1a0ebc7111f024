"""``odds serve``: a local web app (Panel, the optional extra ``odds[web]``) for list-builders
who never open a terminal. The page builds a matchup from pack units, answers it (exact when
the fight is small, simulated otherwise, with a progress bar and a cancel button), compares
loadouts and plays round robins; every upload is untrusted (:mod:`odds.web.uploads`).

Modules: :mod:`~odds.web.runs` (the one queue every page's runs wait in),
:mod:`~odds.web.uploads` (reading a visitor's files), :mod:`~odds.web.matchup` (the page's
scenario, its link and its trial budget; no widgets), :mod:`~odds.web.views` (results as
HTML, PNG and CSV), :mod:`~odds.web.page` (the widgets), :mod:`~odds.web.server`.
"""
INSTALL = 'odds serve needs Panel: pip install "odds[web]"'
