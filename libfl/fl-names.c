/* fl-names.c: being written */
