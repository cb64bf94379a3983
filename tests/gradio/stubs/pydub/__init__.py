"""Stand-in for pydub (not packaged in Debian 13): the test apps return audio as files."""
from _rivulet_stub import klass

AudioSegment = klass("pydub", "AudioSegment")
