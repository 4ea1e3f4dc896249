/* registry.h: the checkers compiled into this runner (generated from the files in grader/labs). */
#ifndef CUDALAB_REGISTRY_H
#define CUDALAB_REGISTRY_H

#include "grader/checker.h"

const cl_checker *cl_find_checker(const char *lab);

#endif
