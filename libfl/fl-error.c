/* fl-error.c: being written */
