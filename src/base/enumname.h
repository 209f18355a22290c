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
 * The owner of an enum exports the table and a typed lr_..._name(); a
 * reader parses with lr_enum_parse and says where the name came from.
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

#endif
