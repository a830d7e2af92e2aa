/* fl-process-linux.c: being written */
