/* json.h: a small JSON reader, enough for the grader's own result files
 * (./grade --analyze reads a class's --json outputs back). */
#ifndef CUDA_LABS_JSON_H
#define CUDA_LABS_JSON_H

#include <stddef.h>

typedef enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    double number;       /* JSON_NUMBER, and 0/1 for JSON_BOOL */
    char *string;        /* JSON_STRING, unescaped */
    int n;               /* items of an array or object */
    struct json *items;  /* array items, or object values */
    char **keys;         /* object keys */
} json;

/* Parses text; NULL with a reason (and its byte offset) in err on failure. */
json *json_parse(const char *text, char *err, size_t errn);
void json_free(json *j);
/* The value of key in an object, or NULL. */
const json *json_get(const json *obj, const char *key);
/* Shorthands that tolerate missing values. */
double json_number(const json *j, double fallback);
const char *json_string(const json *j, const char *fallback);

#endif
