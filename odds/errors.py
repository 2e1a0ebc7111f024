"""The one error type users see for bad input."""


class ScenarioError(ValueError):
    """Bad input: names the file, the field path and what is allowed.

    The CLI prints it on stderr and exits with code 2.
    """

    def __init__(self, message: str, source: str = "<scenario>", field: str = ""):
        self.message = message
        self.source = source
        self.field = field
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {message}")
