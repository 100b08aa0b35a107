"""asyncssh, imported with its one known warning kept from players and logs: the product imports asyncssh from here.

cryptography 46 and newer deprecate DSA, and asyncssh (2.24) names the DSA classes in its annotations, so importing
it printed ten ``CryptographyDeprecationWarning: DSA is deprecated`` lines on stderr.  The filter is narrow: that
category, raised from asyncssh's own modules; any other warning still goes where Koma sends warnings (the server's
log, :func:`tui.server.server_log.use_format`).  Importing this module writes nothing (tests/test_warnings.py).
"""

from __future__ import annotations

import warnings

try:
    from cryptography.utils import CryptographyDeprecationWarning
except ImportError:  # a cryptography without it cannot raise it
    CryptographyDeprecationWarning = None  # type: ignore[assignment,misc]

if CryptographyDeprecationWarning is not None:
    warnings.filterwarnings("ignore", category=CryptographyDeprecationWarning, module=r"asyncssh(\.|$)")

import asyncssh

__all__ = ["asyncssh"]
