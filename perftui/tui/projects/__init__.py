"""The projects feature: the home table and the new-project form."""
