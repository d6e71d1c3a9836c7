// SPDX-License-Identifier: GPL-2.0
/*
 * rbdadm's output: one set of print calls for text and JSON, its error
 * line, and the options that choose the format.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "output.h"
#include "rbdadm.h"

int opt_json;

#define MAX_DEPTH 8

static enum out_mode mode;
static struct json_object *stack[MAX_DEPTH];
static const char *keys[MAX_DEPTH];
static int depth;
static int records;

void out_init(enum out_mode m)
{
	mode = m;
	depth = 0;
	records = 0;
	if (mode == OUT_JSON)
		stack[depth++] = json_object_new_object();
}

static void json_add(const char *key, struct json_object *o)
{
	struct json_object *top = stack[depth - 1];

	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, o);
	else
		json_object_object_add(top, key, o);
}

static void json_push(const char *key, struct json_object *o)
{
	if (depth >= MAX_DEPTH) {
		json_object_put(o);
		return;
	}
	keys[depth] = key;
	stack[depth++] = o;
}

static void json_pop(void)
{
	struct json_object *o;

	if (depth <= 1)
		return;
	o = stack[--depth];
	json_add(keys[depth], o);
}

void out_list_begin(const char *key)
{
	if (mode == OUT_JSON)
		json_push(key, json_object_new_array());
}

/* A named nested object in JSON; nothing in text. */
void out_object_begin(const char *key)
{
	if (mode == OUT_JSON)
		json_push(key, json_object_new_object());
}

/* A named object in JSON; in text a line with its title. */
void out_section(const char *key, const char *title)
{
	if (mode == OUT_JSON)
		json_push(key, json_object_new_object());
	else
		printf("%s\n", title);
}

void out_record_begin(void)
{
	if (mode == OUT_JSON)
		json_push(NULL, json_object_new_object());
	else if (records++)
		putchar('\n');
}

/* Close the innermost open list, record or object. */
void out_end(void)
{
	if (mode == OUT_JSON)
		json_pop();
}

void out_str(const char *key, const char *label, const char *val)
{
	if (mode == OUT_JSON)
		json_add(key, json_object_new_string(val ? val : ""));
	else
		printf("%-18s %s\n", label, val && *val ? val : "-");
}

void out_u64(const char *key, const char *label, uint64_t val)
{
	if (mode == OUT_JSON)
		json_add(key, json_object_new_uint64(val));
	else
		printf("%-18s %" PRIu64 "\n", label, val);
}

void out_i64(const char *key, const char *label, int64_t val)
{
	if (mode == OUT_JSON)
		json_add(key, json_object_new_int64(val));
	else
		printf("%-18s %" PRId64 "\n", label, val);
}

/* No value: JSON null, "-" in text. */
void out_null(const char *key, const char *label)
{
	if (mode == OUT_JSON)
		json_add(key, NULL);
	else
		printf("%-18s -\n", label);
}

void out_bool(const char *key, const char *label, bool val)
{
	if (mode == OUT_JSON)
		json_add(key, json_object_new_boolean(val));
	else
		printf("%-18s %s\n", label, val ? "yes" : "no");
}

int out_finish(void)
{
	int ret = 0;

	if (mode != OUT_JSON)
		return fflush(stdout) ? -1 : 0;
	while (depth > 1)
		json_pop();
	if (puts(json_object_to_json_string_ext(stack[0],
						JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_SPACED)) < 0)
		ret = -1;
	json_object_put(stack[0]);
	depth = 0;
	return ret;
}

void err(const char *fmt, ...)
{
	va_list ap;

	fputs("rbdadm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int out_format_opt(const char *val)
{
	if (!strcmp(val, "json")) {
		opt_json = 1;
	} else if (!strcmp(val, "normal")) {
		opt_json = 0;
	} else {
		err("unknown output format '%s' (-o normal or -o json)", val);
		return EXIT_USAGE;
	}
	return 0;
}

int no_operands(int argc, char **argv, const char *cmd)
{
	if (optind >= argc)
		return -1;
	err("%s: unexpected argument '%s'", cmd, argv[optind]);
	return EXIT_USAGE;
}

/*
 * The options of a command that takes only the output options and
 * -h/--help: --help and an unknown option show USAGE. Returns -1 to go
 * on, with optind at the first operand, or the exit status to return:
 * EXIT_OK after --help, EXIT_USAGE after an unknown option or format.
 */
int parse_common_opts(int argc, char **argv, void (*usage)(void))
{
	static const struct option opts[] = {
		OUT_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;	/* a full reset of getopt, for a second parse */
	while ((c = getopt_long(argc, argv, "jo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = 1;
			break;
		case 'o':
			if (out_format_opt(optarg))
				return EXIT_USAGE;
			break;
		case 'h':
			usage();
			return EXIT_OK;
		default:
			usage();
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* The value of -o FMT, -oFMT, --output-format FMT or --output-format=FMT. */
static const char *format_arg(int argc, char **argv, int *arg)
{
	const char *a = argv[*arg];

	if (!strncmp(a, "--output-format=", 16))
		return a + 16;
	if (!strncmp(a, "-o", 2) && a[2])
		return a + 2;
	if (*arg + 1 >= argc)
		return NULL;
	return argv[++*arg];
}

int parse_global_opts(int argc, char **argv, int *next, void (*usage)(FILE *f))
{
	const char *a, *fmt;
	int arg;

	for (arg = 1; arg < argc && argv[arg][0] == '-'; arg++) {
		a = argv[arg];
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			opt_json = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("rbdadm %s\n", RBD_VERSION);
			return EXIT_OK;
		} else if (!strncmp(a, "-o", 2) || !strcmp(a, "--output-format") ||
			   !strncmp(a, "--output-format=", 16)) {
			fmt = format_arg(argc, argv, &arg);
			if (!fmt) {
				err("%s needs a format: normal or json", a);
				return EXIT_USAGE;
			}
			if (out_format_opt(fmt))
				return EXIT_USAGE;
		} else {
			err("unknown option '%s' (see rbdadm --help)", a);
			return EXIT_USAGE;
		}
	}
	if (arg >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	*next = arg;
	return -1;
}
