/* fl-scan.c: being written */
