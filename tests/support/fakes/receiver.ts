import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for Tripline's ingress in the adapter tests: records what a fake
// provider sends to a hook's URL and answers `answer` (settable, 2xx or not).

export type Receiver = {
  url: string;
  received: Array<{ headers: http.IncomingHttpHeaders; body: string }>;
  answer: number;
  close(): Promise<void>;
};

export async function startReceiver(answer: number, path = '/webhooks/w/wh_test'): Promise<Receiver> {
  const receiver: Omit<Receiver, 'close'> = { url: '', received: [], answer };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      receiver.received.push({ headers: request.headers, body });
      response.writeHead(receiver.answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return Object.assign(receiver, { close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}
