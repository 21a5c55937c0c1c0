"""games/hearts: see the README's Layout section."""
