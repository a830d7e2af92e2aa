/* fl-judge.c: being written */
