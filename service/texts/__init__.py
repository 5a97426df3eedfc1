"""Server-side texts that more than one adapter renders (the API's transcripts; the bot may
use them too): plain catalogs with no I/O and no framework, importable from every layer
above `service.game`."""
