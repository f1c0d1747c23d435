import { z } from 'zod';
import { factoryNameSchema, factorySlugSchema } from '@/lib/domain/factories/schemas';

export const emailSchema = z
  .string()
  .trim()
  .min(1, 'Enter an email address')
  .max(254, 'An email address has at most 254 characters')
  .pipe(z.email('Enter a valid email address'))
  .transform((email) => email.toLowerCase());

export const newPasswordSchema = z
  .string()
  .min(10, 'Use at least 10 characters')
  .max(256, 'Use at most 256 characters');

export const personNameSchema = z.string().trim().max(80, 'Use at most 80 characters').optional();

export const signInSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, 'Enter your password').max(256, 'Use at most 256 characters'),
});
export type SignInInput = z.input<typeof signInSchema>;

export const signUpSchema = z.object({
  name: personNameSchema,
  email: emailSchema,
  password: newPasswordSchema,
});
export type SignUpInput = z.input<typeof signUpSchema>;

export const firstRunSchema = signUpSchema.extend({
  factoryName: factoryNameSchema,
  factorySlug: factorySlugSchema,
});
export type FirstRunInput = z.input<typeof firstRunSchema>;

export const signUpClosedMessage =
  'Sign-up on this Tripline is by invitation. Ask an admin of the factory you want to join for an invitation link.';
