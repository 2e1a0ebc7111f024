"""``odds serve``: one server process for every page (the kernels compile once), bound to
127.0.0.1 unless told otherwise. Every script and stylesheet the page loads is served by
this process (Bokeh's and Panel's own files, ``resources="server"``): no page fetches from
another host."""
from __future__ import annotations

import sys

from odds.web import INSTALL

LOCAL = ("127.0.0.1", "localhost", "::1")
MOST_MESSAGE = 16 * 2**20  # bytes of one browser message (an upload, base64, is 4/3 its size)


def serve(port: int = 5006, host: str = "127.0.0.1", show: bool = False) -> None:
    """Serve the app until interrupted (prints its address first)."""
    try:
        import panel as pn
    except ImportError as error:
        raise ImportError(INSTALL) from error
    import matplotlib

    matplotlib.use("Agg")  # charts are drawn on the run thread, never in a window
    from odds.web.page import Page
    from odds.web.runs import Runs

    runs = Runs()

    def page():
        link = pn.state.session_args.get("m", [b""])[0].decode("ascii", "replace") or None
        return Page(runs, link).view()

    if host not in LOCAL:
        print(f"odds: serving on {host}, not only this machine: anyone who can reach it may "
              "play fights on it (uploads still cannot read its files)", file=sys.stderr)
    if port == 0:
        port = _free_port(host)
    pn.config.resources = "server"
    server = pn.serve({"/": page}, port=port, address=host, show=show, start=False,
                      title="odds", websocket_max_message_size=MOST_MESSAGE,
                      allow_websocket_origin=_origins(host, port))
    server.start()
    print(f"odds: serving at http://{_shown(host)}:{server.port}/ (Ctrl+C stops it)",
          flush=True)
    try:
        server.io_loop.start()
    except KeyboardInterrupt:
        pass


def _origins(host: str, port: int) -> list[str]:
    """The pages whose scripts may talk to the server: this machine's, or, when it listens
    on another address, a page of this server reached by any of the machine's names."""
    if host not in LOCAL:
        return [f"*:{port}"]
    return [f"{_shown(host)}:{port}", f"localhost:{port}", f"127.0.0.1:{port}"]


def _free_port(host: str) -> int:
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host
