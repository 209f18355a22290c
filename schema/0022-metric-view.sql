-- labrun store, migration 22: every metric a command experiment's executions wrote, per arm and grid
-- value, in one view (docs/schema.md, "metric_by_arm"), so reading them needs no join by hand.

-- One row per metric of an execution: the run, its condition with the condition's grid values as a
-- JSON object ('{"size":"2","model":"qwen3-4b"}', values as text, '{}' without a grid), the arm by
-- index and name, the block and slot, the phase, and the metric as stored.
CREATE VIEW metric_by_arm AS
SELECT m.run_id, -- the run
       m.condition_idx, -- condition.idx
       (SELECT json_group_object(p.key, p.value)
        FROM (SELECT key, value FROM condition_param p
              WHERE p.run_id = m.run_id AND p.condition_idx = m.condition_idx ORDER BY position) p) AS params, -- grid values
       e.arm_idx, -- arm.idx
       a.name AS arm, -- arm.name
       e.block, -- repetition.block, NULL for the untimed parity execution
       e.slot, -- repetition.slot, NULL for the parity execution
       CASE WHEN e.block IS NULL THEN 'parity'
            WHEN coalesce(r.warmup, e.block < d.warmup) THEN 'warmup'
            ELSE 'timed' END AS phase, -- 'parity', 'warmup' or 'timed' (what reports summarise)
       m.seq, -- execution.seq
       m.name, -- the metric
       m.value, -- its value, in unit
       m.unit, -- as written ('' when not given)
       m.better -- 'higher' or 'lower'
FROM metric m
JOIN execution e ON e.run_id = m.run_id AND e.condition_idx = m.condition_idx AND e.seq = m.seq
JOIN arm a ON a.run_id = e.run_id AND a.idx = e.arm_idx
LEFT JOIN repetition r ON r.run_id = e.run_id AND r.condition_idx = e.condition_idx AND r.block = e.block
     AND r.slot = e.slot
LEFT JOIN run_design d ON d.run_id = m.run_id;
