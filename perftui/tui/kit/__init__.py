"""Building blocks shared by every dashboard feature: the screen base, the tabbed screen,
tables, dialogs, the child-process follower, the model inspection worker, charts and the
formatting and fitting of text."""
