"""`make bench`: the gateway's cost against dynalite, side by side with its floors."""
