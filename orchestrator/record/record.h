/* record.h - trial records: one JSON object per line in trials.jsonl. */
#ifndef MHL_RECORD_H
#define MHL_RECORD_H

#include <json-c/json.h>

/*
 * Append @rec as one line with a single write(2) on an O_APPEND descriptor,
 * then fsync: a crash leaves either the whole line or none of it.
 */
int mhlRecordAppend(const char *path, json_object *rec);

#endif
