import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as packet from 'dns-packet';

/**
 * A real DNS server on loopback (UDP, wire format by `dns-packet`): it answers TXT and CNAME
 * questions from `records`, which a test changes as a domain owner would change their zone;
 * a name it does not know is NXDOMAIN, and while `failing` it answers nothing.
 */
export interface LoopbackDns {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  server: string;
  records: Map<string, { TXT?: string[]; CNAME?: string[] }>;
  failing: boolean;
  questions: { name: string; type: string }[];
  close(): Promise<void>;
}

export async function startLoopbackDns(): Promise<LoopbackDns> {
  const socket = createSocket('udp4');
  const state: LoopbackDns = {
    server: '',
    records: new Map(),
    failing: false,
    questions: [],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (message, remote) => {
    const query = packet.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    state.questions.push({ name, type: question.type });
    const zone = state.records.get(name);
    const answers: packet.Answer[] = [];
    if (question.type === 'TXT') for (const value of zone?.TXT ?? []) answers.push({ type: 'TXT', name: question.name, ttl: 60, class: 'IN', data: value });
    if (question.type === 'CNAME') for (const value of zone?.CNAME ?? []) answers.push({ type: 'CNAME', name: question.name, ttl: 60, class: 'IN', data: value });
    if (state.failing) return; // a server that does not answer: the resolver times out
    const rcode = zone ? 'NOERROR' : 'NXDOMAIN';
    const reply = packet.encode({ id: query.id, type: 'response', flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | packet.AUTHORITATIVE_ANSWER, rcode, questions: query.questions, answers } as packet.Packet);
    socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  state.server = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return state;
}
