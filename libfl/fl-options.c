/* fl-options.c: being written */
