-- Every scope gets a number, and every row of memory_fts a word naming its
-- scope: that number as 20 decimal digits (the Porter stemmer leaves digits
-- alone). A ranking query ANDs the scope's word, so that FTS5 scores only
-- the rows of the case searched instead of every case's; the join on
-- memory_chunks still checks tenant and case itself.
CREATE TABLE IF NOT EXISTS memory_scope_ids (
  id      INTEGER PRIMARY KEY,
  tenant  TEXT NOT NULL,
  case_id TEXT NOT NULL,
  UNIQUE (tenant, case_id)
);
INSERT OR IGNORE INTO memory_scope_ids (tenant, case_id)
  SELECT DISTINCT tenant, case_id FROM memory_chunks ORDER BY tenant, case_id;

-- FTS5 tables take no new column: the table is made again, with the
-- current chunks (what 0006 made and the store kept in it).
DROP TABLE IF EXISTS memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5 (
  content, headings, title,
  scope,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO memory_fts (rowid, content, headings, title, scope)
  SELECT c.id, c.content,
         coalesce((SELECT group_concat(h.value, char(10)) FROM json_each(c.headings) h), ''),
         d.title, printf('%020d', s.id)
  FROM memory_chunks c
  JOIN memory_documents d ON d.id = c.doc
  JOIN memory_scope_ids s ON s.tenant = c.tenant AND s.case_id = c.case_id
  WHERE c.status = 'current'
  ORDER BY c.id;
UPDATE memory_stats SET fts_rows = (SELECT count(*) FROM memory_chunks WHERE status = 'current') WHERE id = 1;
