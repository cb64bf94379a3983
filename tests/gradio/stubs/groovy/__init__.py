"""Stand-in for groovy (Python-to-JavaScript transpiler; not packaged in Debian 13)."""
from _rivulet_stub import error, function

transpile = function("groovy", "transpile")
TranspilerError = error("groovy", "TranspilerError")
