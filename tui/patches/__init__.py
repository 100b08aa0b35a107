"""Every use of a library's private internals (Textual, asyncssh, argparse), each checking itself and stepping aside."""
