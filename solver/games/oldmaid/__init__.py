"""games/oldmaid: see the README's Layout section."""
