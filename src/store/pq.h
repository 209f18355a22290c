#ifndef LR_STORE_PQ_H
#define LR_STORE_PQ_H

/*
 * libpq, loaded when a command first talks to a remote. Linked in, its
 * Kerberos, LDAP and SASL libraries were loaded by every command and
 * doubled the start-up of 'labrun record' (docs/design.md, "Remotes").
 * The calls keep their names: after including this header, PQexec(...) is
 * a call through the table lr_pq_load() filled.
 */

#include <libpq-fe.h>

#include "base/dynlib.h"

/* clang-format off */
#define LR_PQ_FUNCS(X) \
	X(PQconnectdbParams) X(PQstatus) X(PQerrorMessage) X(PQfinish) X(PQexecParams) X(PQexec) \
	X(PQresultStatus) X(PQresultErrorMessage) X(PQclear) X(PQntuples) X(PQgetvalue) X(PQgetlength) X(PQgetisnull) \
	X(PQhost) X(PQdb) X(PQport) X(PQsendQueryParams) X(PQsetSingleRowMode) X(PQgetResult) \
	X(PQconninfoParse) X(PQconninfoFree) X(PQfreemem)
/* clang-format on */

/*
 * The table lr_pq, and lr_pq_load(), which loads libpq.so.5 once: 0, or
 * LR_ESTORE saying it is missing (and what to install).
 */
LR_DYNLIB_DECLARE(lr_pq, lr_pq_load, LR_PQ_FUNCS)

#ifndef LR_PQ_LOADER /* pq.c names the functions themselves */
#define PQconnectdbParams    lr_pq.PQconnectdbParams
#define PQstatus             lr_pq.PQstatus
#define PQerrorMessage       lr_pq.PQerrorMessage
#define PQfinish             lr_pq.PQfinish
#define PQexecParams         lr_pq.PQexecParams
#define PQexec               lr_pq.PQexec
#define PQresultStatus       lr_pq.PQresultStatus
#define PQresultErrorMessage lr_pq.PQresultErrorMessage
#define PQclear              lr_pq.PQclear
#define PQntuples            lr_pq.PQntuples
#define PQgetvalue           lr_pq.PQgetvalue
#define PQgetlength          lr_pq.PQgetlength
#define PQgetisnull          lr_pq.PQgetisnull
#define PQhost               lr_pq.PQhost
#define PQdb                 lr_pq.PQdb
#define PQport               lr_pq.PQport
#define PQsendQueryParams    lr_pq.PQsendQueryParams
#define PQsetSingleRowMode   lr_pq.PQsetSingleRowMode
#define PQgetResult          lr_pq.PQgetResult
#define PQconninfoParse      lr_pq.PQconninfoParse
#define PQconninfoFree       lr_pq.PQconninfoFree
#define PQfreemem            lr_pq.PQfreemem
#endif

#endif
