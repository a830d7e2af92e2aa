/* fl-lock.c: being written */
