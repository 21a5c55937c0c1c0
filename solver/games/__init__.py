"""games: see the README's Layout section."""
