// Who may do what in a factory. The single table every guard reads.
//   admin:  manage the factory's configuration (webhooks, secrets, members)
//   editor: edit automations and test filters
//   viewer: read

export const roles = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof roles)[number];

export const permissions = {
  'factory:read': ['admin', 'editor', 'viewer'],
  'automations:edit': ['admin', 'editor'],
  'factory:manage': ['admin'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof permissions;

export function can(role: Role, permission: Permission): boolean {
  return (permissions[permission] as readonly Role[]).includes(role);
}

export const roleLabels: Record<Role, string> = { admin: 'Admin', editor: 'Editor', viewer: 'Viewer' };

export const roleDescriptions: Record<Role, string> = {
  admin: 'Manages the factory: webhooks, secrets and members',
  editor: 'Edits automations and tests filters',
  viewer: 'Reads everything, changes nothing',
};
