/** Exact `detail` texts of the interface (service-interface.md §7) and the ones Portico adds. */
export const messages = {
  invalidApiKey: 'Invalid API key',
  portalNotFound: 'Portal not found',
  portalExists: (endpointName: string) => `Portal with endpoint_name '${endpointName}' already exists`,
  skillExists: (name: string, folder: string) => `Skill '${name}' already exists in folder '${folder}'`,
  skillNotFound: 'Skill not found',
  profileNotFound: 'Profile not found',
  sessionNotFound: 'Session not found',
  orgKeyRequired: 'This endpoint requires an organization API key',
  accountKeyRequired: 'This endpoint requires an account API key',
  wrongOrg: (orgId: string) => `API key does not belong to organization '${orgId}'`,
  notAMember: 'Not a member of this workspace',
  internal: 'Internal server error',
  skillTooLarge: 'Skill zip exceeds the 100 MB limit',
} as const;
