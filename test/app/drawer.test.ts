import { describe, expect, it } from 'vitest';
import { drawer } from '../../src/app/drawer';
import type { DrawerLists } from '../../src/app/drawer';
import type { Memory, ThreadSummary } from '../../src/platform/conversationApi';

const thread = (id: string): ThreadSummary => ({ id, bot: 'sage', title: id, createdAt: '', lastLineAt: '' });
const memory = (id: string): Memory => ({ id, bot: 'sage', text: id, createdAt: '' });

function setUp(failing = false) {
  let lists: DrawerLists = { threads: [], memories: [], drawerProblem: null };
  const forgotten: string[] = [];
  const refuse = () => Promise.reject(new Error('The server said no.'));
  const d = drawer({
    api: {
      threads: () => (failing ? refuse() : Promise.resolve([thread('a'), thread('b')])),
      forgetThread: () => (failing ? refuse() : Promise.resolve()),
      memories: () => (failing ? refuse() : Promise.resolve([memory('m1'), memory('m2')])),
      forgetMemory: () => (failing ? refuse() : Promise.resolve()),
    },
    bot: { slug: 'sage', memory: 'person+recall' },
    lists: () => lists,
    update: (change) => {
      lists = { ...lists, ...change };
    },
    onForgotten: (id) => forgotten.push(id),
  });
  return { d, lists: () => lists, forgotten };
}

describe('the drawer', () => {
  it('lists the conversations and memories, and drops what is forgotten', async () => {
    const t = setUp();
    await t.d.refreshThreads();
    await t.d.loadMemories();
    await t.d.forgetThread('a');
    await t.d.forgetMemory('m2');
    expect(t.lists().threads.map((x) => x.id)).toEqual(['b']);
    expect(t.lists().memories?.map((x) => x.id)).toEqual(['m1']);
    expect(t.forgotten).toEqual(['a']);
  });

  it('says a failure in the drawer and keeps the lists as they were', async () => {
    const t = setUp(true);
    await t.d.forgetThread('a');
    expect(t.lists().drawerProblem).toBe('The server said no.');
    expect(t.forgotten).toEqual([]);
    expect(t.lists().threads).toEqual([]);
  });
});
