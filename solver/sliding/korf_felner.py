"""Korf and Felner's 50 random 24-puzzle instances: which are the easiest (a plain constant, so that listing the
benchmark cases loads no solver and no numba).  The instances themselves are in ``solver/data/korf50-24.txt``."""

# The 15 easiest by Korf and Felner's published node counts (3.8e7 to 4.8e9), easiest first.
EASIEST = (38, 40, 25, 32, 44, 37, 30, 13, 1, 28, 36, 5, 22, 16, 29)
