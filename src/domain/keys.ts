import { randomUUID } from 'node:crypto';

// Secret, public and admin keys are random UUIDs, the format seats.io clients already
// store and log. 122 random bits make guessing one hopeless.
export const newKey = (): string => randomUUID();
