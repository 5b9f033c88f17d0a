/**
 * The words and price ranges the generator draws from. No entry holds a comma or a quote,
 * so the prompt's CSV needs no quoting.
 */
import type { Category } from './types.js';

export const BUSINESS_FIRST = ['Harbour', 'Wattle', 'Southern Cross', 'Ironbark', 'Coastal', 'Bluegum', 'Redgum', 'Kookaburra', 'Outback', 'Riverina', 'Banksia', 'Magpie'] as const;
export const BUSINESS_SECOND = ['Design', 'Engineering', 'Consulting', 'Trading', 'Services', 'Studio', 'Logistics', 'Supplies', 'Clinic', 'Workshop'] as const;

export const CUSTOMERS = [
  'Acacia Holdings', 'Brightside Cafe', 'Tasman Freight', 'Murray Legal', 'Pinnacle Dental', 'Kimberley Exports',
  'Lakeside School', 'Geelong Motors', 'Coral Reef Tours', 'Hunter Valley Wines', 'Mallee Farms', 'Sunset Realty',
  'Pacific Imports Ltd', 'Nguyen Family Trust', 'Smith & Jones Partners', 'Greenway Council',
] as const;


/** What a row of each category is for, who sells it to the business, and its price range in dollars (GST included). */
export const CATEGORY_SPECS: Record<Category, { descriptions: readonly string[]; suppliers: readonly string[]; min: number; max: number }> = {
  office_supplies: { descriptions: ['Printer paper and toner', 'Stationery order', 'Desk chairs', 'Filing cabinets'], suppliers: ['Officeworks Direct', 'Winc Australia', 'Paperclip Stationers'], min: 12, max: 650 },
  equipment: { descriptions: ['Laptop computers', 'Network switch', 'Workshop tools', 'Commercial printer'], suppliers: ['Dell Technologies', 'JB Hi-Fi Business', 'Total Tools Trade'], min: 180, max: 9500 },
  professional_services: { descriptions: ['Consulting retainer', 'Bookkeeping services', 'Legal advice', 'Design project'], suppliers: ['Murray Legal', 'Pitcher Accountants', 'Bright Ideas Consulting'], min: 250, max: 14000 },
  advertising: { descriptions: ['Online advertising campaign', 'Radio spot', 'Print brochures', 'Job listing'], suppliers: ['Seek Advertising', 'Canva Australia', 'Southern Radio Network'], min: 90, max: 5200 },
  utilities: { descriptions: ['Electricity bill', 'Internet and phone', 'Water rates', 'Gas supply'], suppliers: ['AGL Energy', 'Telstra Business', 'Origin Energy', 'Sydney Water'], min: 60, max: 1800 },
  repairs_maintenance: { descriptions: ['Air conditioner service', 'Plumbing repair', 'Vehicle service', 'Electrical work'], suppliers: ['Sparky Bros Electrical', 'Metro Plumbing', 'Coolair Services'], min: 85, max: 4200 },
  basic_food: { descriptions: ['Fresh fruit and milk', 'Bread and vegetables', 'Meat for staff kitchen', 'Tea and coffee beans'], suppliers: ['Woolworths Group', 'Coles Supermarkets', 'Harris Farm Markets'], min: 8, max: 950 },
  medical: { descriptions: ['GP consultation', 'Physiotherapy session', 'First aid course', 'Prescription medicines'], suppliers: ['Bupa Health', 'Priceline Pharmacy', 'City Physio'], min: 45, max: 2600 },
  education: { descriptions: ['Accredited training course', 'Certificate IV tuition', 'Apprentice fees', 'University short course'], suppliers: ['TAFE NSW', 'RMIT Training', 'Skills Institute'], min: 150, max: 6500 },
  export: { descriptions: ['Goods shipped to New Zealand', 'Services to a Singapore client', 'Export consignment to Japan'], suppliers: ['Global Freight Forwarders'], min: 900, max: 42000 },
  financial_supply: { descriptions: ['Loan interest', 'Bank account fees', 'Merchant facility fee', 'Interest received'], suppliers: ['Westpac Banking', 'CBA Merchant Services', 'NAB Business'], min: 15, max: 3200 },
  residential_rent: { descriptions: ['Residential rent for staff house', 'Unit lease', 'Tenant rent received'], suppliers: ['Ray White Property', 'LJ Hooker Rentals'], min: 1400, max: 4200 },
};

/** Categories a sale draws from, with weights: mostly taxable work, some exempt lines. */
export const SALE_CATEGORIES: readonly Category[] = [
  'professional_services', 'professional_services', 'professional_services', 'equipment', 'equipment',
  'repairs_maintenance', 'repairs_maintenance', 'advertising', 'office_supplies',
  'export', 'education', 'basic_food', 'medical', 'residential_rent', 'financial_supply',
];

/** Categories a purchase draws from, with weights; exports are only ever sold. */
export const PURCHASE_CATEGORIES: readonly Category[] = [
  'office_supplies', 'office_supplies', 'office_supplies', 'equipment', 'equipment', 'professional_services',
  'advertising', 'advertising', 'utilities', 'utilities', 'utilities', 'repairs_maintenance', 'repairs_maintenance',
  'basic_food', 'basic_food', 'medical', 'education', 'financial_supply', 'residential_rent',
];
