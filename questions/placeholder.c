/* placeholder.c: replaced by the question bank library. */
typedef int cudalab_questions_placeholder;
