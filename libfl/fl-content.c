/* fl-content.c: being written */
