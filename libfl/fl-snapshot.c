/* fl-snapshot.c: being written */
