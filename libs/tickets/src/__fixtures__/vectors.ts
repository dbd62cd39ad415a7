import { readFileSync } from 'node:fs';

/** One ticket vector of `vectors.json` (see libs/tickets/vectors/generate_vectors.py). */
export interface TicketVector {
  name: string;
  privateKey: string;
  ticket: {
    recipient: string;
    sender: string;
    faceValue: string;
    winProb: string;
    senderNonce: string;
    recipientRandHash: string;
    creationRound: string;
    creationRoundBlockHash: string;
    recipientRand: string;
  };
  packed: string;
  ticketHash: string;
  ethSignedMessageHash: string;
  sig: string;
  winValue: string;
  wins: boolean;
  highSSig: string;
  highSRecoversTo: string;
}

/** The published web3.js signing example. */
export interface PublishedVector {
  privateKey: string;
  address: string;
  message: string;
  messageHash: string;
  signature: string;
}

/** Vectors computed with the Python Ethereum libraries, not with @noble. */
export const vectors = JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8')) as {
  tickets: TicketVector[];
  published: PublishedVector;
};
