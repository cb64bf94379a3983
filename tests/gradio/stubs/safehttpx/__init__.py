"""Stand-in for safehttpx (not packaged in Debian 13)."""
from _rivulet_stub import function, klass

get = function("safehttpx", "get")
async_validate_url = function("safehttpx", "async_validate_url")
AsyncSecureTransport = klass("safehttpx", "AsyncSecureTransport")
