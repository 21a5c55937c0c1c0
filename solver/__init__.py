"""pyramid: exact Pyramid Solitaire solving and fast random-play engines for four more card games."""
