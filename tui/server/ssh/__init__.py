"""``koma serve``: the SSH front end."""
