"""``koma web``: the browser front end."""
