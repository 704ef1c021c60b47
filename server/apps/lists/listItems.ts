/**
 * The `list_items` table (migration 004): a person's named lists, one row per item, in the order
 * added. Run in the person's transaction; the policy confines every query to their own rows. `list`
 * is a normalised list name and `key` an item's comparison form (see `index.ts`).
 */
import type { Queryable } from '../../db/queryable';
import { onlyRow } from '../../db/rows';

/** Adds an item unless one with the same key is on the list; true when it was added. */
export async function addItem(tx: Queryable, item: { person: string; list: string; text: string; key: string }): Promise<boolean> {
  const { rows } = await tx.query(
    'insert into list_items (person, list, item, item_key) values ($1, $2, $3, $4) on conflict (person, list, item_key) do nothing returning id',
    [item.person, item.list, item.text, item.key],
  );
  return rows.length > 0;
}

/** The list's first `limit` items, in the order they were added. */
export async function listItems(tx: Queryable, list: string, limit: number): Promise<string[]> {
  const { rows } = await tx.query<{ item: string }>('select item from list_items where list = $1 order by seq limit $2', [list, limit]);
  return rows.map((row) => row.item);
}

/** The person's lists' names, the one added to last first. */
export async function listNames(tx: Queryable, limit: number): Promise<string[]> {
  const { rows } = await tx.query<{ list: string }>('select list from list_items group by list order by max(seq) desc limit $1', [limit]);
  return rows.map((row) => row.list);
}

/** How many items the list has. */
export async function countItems(tx: Queryable, list: string): Promise<number> {
  const { rows } = await tx.query<{ count: number }>('select count(*)::int as count from list_items where list = $1', [list]);
  return onlyRow(rows, 'Counting list items').count;
}

/** Removes the items with these keys; answers the keys that were there. */
export async function removeItems(tx: Queryable, list: string, keys: readonly string[]): Promise<string[]> {
  const { rows } = await tx.query<{ item_key: string }>('delete from list_items where list = $1 and item_key = any($2::text[]) returning item_key', [list, keys]);
  return rows.map((row) => row.item_key);
}

/** Empties the list; answers how many items went. */
export async function clearList(tx: Queryable, list: string): Promise<number> {
  const { rows } = await tx.query('delete from list_items where list = $1 returning id', [list]);
  return rows.length;
}
