#ifndef LR_BASE_ENUMNAME_H
#define LR_BASE_ENUMNAME_H

/*
 * An enum whose values are stored, written or typed by name (a run's kind
 * and status, an experiment's target and order, ...): one table of its
 * names, indexed by value, read in both directions, so that a name and its
 * value cannot drift apart between a writer and a reader. A name that is
 * not in the table is an error, never a default: a row stored by a newer
 * labrun is refused, not read as something else.
 *
 *	static const char *const order_names[] = { [LR_ORDER_ABBA] = "abba", [LR_ORDER_RANDOM] = "random" };
 *	const struct lr_enum_names lr_exp_orders = LR_ENUM_NAMES("order", order_names);
 *
 * The owner of an enum exports its typed pair, declared in its header and
 * defined beside the table:
 *
 *	LR_ENUM_DECLARE(lr_exp_order, enum lr_exp_order);           (.h)
 *	LR_ENUM_DEFINE(lr_exp_order, enum lr_exp_order, lr_exp_orders) (.c)
 *
 * gives lr_exp_order_name(v) and lr_exp_order_parse(s, &v); a reader says
 * where a name came from by wrapping the error (lr_error_wrap).
 */

#include <stddef.h>

#include "base/error.h"

struct lr_enum_names {
	const char *what;         /* what a value is, for messages: "target", "run status" */
	const char *const *names; /* names[v]: the name of value v, for v in [0, n); none NULL */
	size_t n;
};
#define LR_ENUM_NAMES(what, names) \
	{ \
		what, names, sizeof names / sizeof names[0] \
	}

/* The name of value v; "?" for a value outside the table, which is a bug, not data. */
const char *lr_enum_name(const struct lr_enum_names *e, int v);

/*
 * The value named s into *v: 0; or LR_EINVAL with *v untouched and the
 * message "unknown WHAT 'S' (labrun VERSION knows A, B and C)" (s NULL
 * included), for the caller to wrap with where s came from (lr_error_wrap).
 */
LR_MUST_CHECK int lr_enum_parse(const struct lr_enum_names *e, const char *s, int *v);

/* PREFIX_name(TYPE v) and PREFIX_parse(const char *s, TYPE *v), as lr_enum_name and lr_enum_parse. */
#define LR_ENUM_DECLARE(prefix, type) \
	const char *prefix##_name(type v); \
	LR_MUST_CHECK int prefix##_parse(const char *s, type *v)
/* Their definitions over the table 'names' (a struct lr_enum_names). */
#define LR_ENUM_DEFINE(prefix, type, names) \
	const char *prefix##_name(type v) \
	{ \
		return lr_enum_name(&(names), (int)v); \
	} \
	int prefix##_parse(const char *s, type *v) \
	{ \
		int i, rc = lr_enum_parse(&(names), s, &i); \
\
		if (!rc) \
			*v = (type)i; \
		return rc; \
	}

#endif
