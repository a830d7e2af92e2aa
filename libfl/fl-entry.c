/* fl-entry.c: being written */
