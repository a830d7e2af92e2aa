/* fl-waiter-linux.c: being written */
