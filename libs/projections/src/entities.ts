import { EntitySchema, type EntitySchemaColumnOptions, type ValueTransformer } from 'typeorm';
import {
  AUDIT_LOG,
  CHECKPOINTS,
  DECLARED_TYPES,
  HEAD_MESSAGES,
  primaryKeyName,
  ROLLBACKS,
  SESSIONS,
  TIMELINE_NODES,
  TOOL_CALL_LEDGER,
  type ColumnKind,
  type ColumnSpec,
  type TableSpec,
} from './schema';

/**
 * TypeORM entities of the read models (the query side), derived from the table definitions
 * in `schema.ts`: one property per column, named in camelCase (`tenant_id` → `tenantId`). The
 * tables are created by the migrations; the projection writers fill them (see `sql.ts`).
 */

/** `tenant_id` → `tenantId`, in the type too. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
const camelCase = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

type ValueOf<C extends ColumnSpec> =
  | (C['kind'] extends 'text' ? string : C['kind'] extends 'bool' ? boolean : number)
  | (C['nullable'] extends true ? null : never);

/** A row of the table as TypeORM gives it back. */
export type EntityOf<T extends TableSpec> = { [C in T['columns'][number] as CamelCase<C['name']>]: ValueOf<C> };

/** Global positions are bigint on PostgreSQL (the driver gives strings) and below 2^53: numbers here. */
const asNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
/** SQLite stores booleans as 0/1. */
const asBoolean: ValueTransformer = {
  to: (value: boolean | null | undefined) => value,
  from: (value: boolean | number | null) => (value === null || value === undefined ? value : Boolean(value)),
};

const TRANSFORMERS: Partial<Record<ColumnKind, ValueTransformer>> = { bigint: asNumber, bool: asBoolean };

function entityOf<T extends TableSpec>(table: T): EntitySchema<EntityOf<T>> {
  const columns: Record<string, EntitySchemaColumnOptions> = {};
  for (const column of table.columns) {
    const options: EntitySchemaColumnOptions = {
      name: column.name,
      // PostgreSQL's names on both databases (TypeORM reads and writes SQLite's the same way; the migrations made the tables).
      type: DECLARED_TYPES.postgres[column.kind] as EntitySchemaColumnOptions['type'],
      nullable: column.nullable === true,
    };
    if (table.primaryKey.includes(column.name)) Object.assign(options, { primary: true, primaryKeyConstraintName: primaryKeyName(table) });
    const transformer = TRANSFORMERS[column.kind];
    if (transformer) options.transformer = transformer;
    columns[camelCase(column.name)] = options;
  }
  return new EntitySchema<EntityOf<T>>({
    name: table.name,
    tableName: table.name,
    columns: columns as EntitySchema<EntityOf<T>>['options']['columns'],
    indices: (table.indexes ?? []).map((index) => ({ name: index.name, columns: index.columns.map(camelCase) })),
  });
}

export const ProjectionCheckpointEntity = entityOf(CHECKPOINTS);
export const SessionEntity = entityOf(SESSIONS);
export const TimelineNodeEntity = entityOf(TIMELINE_NODES);
export const HeadMessageEntity = entityOf(HEAD_MESSAGES);
export const ToolCallLedgerEntity = entityOf(TOOL_CALL_LEDGER);
export const RollbackEntity = entityOf(ROLLBACKS);
export const AuditLogEntity = entityOf(AUDIT_LOG);

export const READ_MODEL_ENTITIES = [
  ProjectionCheckpointEntity,
  SessionEntity,
  TimelineNodeEntity,
  HeadMessageEntity,
  ToolCallLedgerEntity,
  RollbackEntity,
  AuditLogEntity,
];
