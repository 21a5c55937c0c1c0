"""pyramid/optimal: see the README's Layout section."""
