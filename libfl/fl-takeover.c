/* fl-takeover.c: being written */
