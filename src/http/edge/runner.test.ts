import { describe, expect, it } from 'vitest';
import { answeredWhole, finishEdge, type EdgeContext, type EdgeStep } from './runner.ts';

// What a request holds (an Idempotency-Key lease's renewal) is let go after its answer, even
// when a step's `answered` hook fails: with the database down, storing or releasing the key
// rejects, and a lease renewed forever kept the key claimed while its process lived.
describe('finishEdge', () => {
  const answer = answeredWhole({ status: 500, headers: {}, body: '{}' });
  const context = (released: string[]) => ({ next: 3, finally: [() => void released.push('lease')] }) as unknown as EdgeContext;

  it('runs every hook and lets go when a hook rejects, then reports the failure', async () => {
    const ran: string[] = [];
    const steps: EdgeStep[] = [
      { name: 'a', run() {}, answered: () => Promise.reject(new Error('database unreachable')) },
      { name: 'b', run() {}, answered: () => void ran.push('b') },
      { name: 'c', run() {} },
    ];
    const released: string[] = [];
    await expect(finishEdge(steps, context(released), answer)).rejects.toThrow('database unreachable');
    expect(ran).toEqual(['b']);
    expect(released).toEqual(['lease']);
  });

  it('lets go when a hook throws', async () => {
    const steps: EdgeStep[] = [{ name: 'a', run() {}, answered: () => { throw new Error('boom'); } }];
    const released: string[] = [];
    await expect(Promise.resolve().then(() => finishEdge(steps, context(released), answer))).rejects.toThrow('boom');
    expect(released).toEqual(['lease']);
  });
});
