/* fl-directory-model.c: being written */
