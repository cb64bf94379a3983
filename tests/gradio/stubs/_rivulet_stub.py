"""Helpers for the stand-in modules of tests/gradio (modules Debian 13 does not package).

A stand-in defines only the names Gradio imports at load time. Calling anything in it
raises StandInError, so a test that reaches code needing the real package fails loudly.
"""


class StandInError(RuntimeError):
    pass


def function(module, name):
    def unavailable(*args, **kwargs):
        raise StandInError(f"{module}.{name} is a Rivulet test stand-in, not the real package")

    unavailable.__name__ = name
    return unavailable


def klass(module, name, base=object):
    """A class that can be named, subclassed and constructed, but whose methods raise."""

    def __getattr__(self, attr):
        raise StandInError(f"{module}.{name}.{attr} is a Rivulet test stand-in")

    return type(name, (base,), {"__getattr__": __getattr__, "__module__": module})


def error(module, name):
    return type(name, (Exception,), {"__module__": module})
