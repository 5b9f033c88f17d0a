/**
 * The businesses the generator draws from: a trade decides what a business sells and to
 * whom, what it buys and from whom, and at what prices. No entry holds a comma or a quote,
 * so the prompt's CSV needs no quoting. docs/benchmark.md describes the trades and their mixes.
 */
import type { Category } from './types.js';

/** One kind of document a business of a trade records: its category, wording, parties and price range. */
export interface LedgerLine {
  category: Category;
  /** Price range in dollars, GST included. */
  min: number;
  max: number;
  descriptions: readonly string[];
  /** Customers on sales, suppliers on purchases. */
  parties: readonly string[];
}

export interface Trade {
  /** The trade as recorded in the task file's business record. */
  name: string;
  /** Words that end the business's name ("Cafe", "Medical Centre"). */
  suffixes: readonly string[];
  /** Share of rows that are sales. */
  saleShare: number;
  /** Sale lines, repeated by weight so that a uniform pick is a weighted one. */
  sales: readonly LedgerLine[];
  purchases: readonly LedgerLine[];
  /**
   * Cheap purchases (a tax invoice is not needed under $82.50), where the generator plants
   * small receipts without an ABN and prices right at the threshold.
   */
  receipts: readonly LedgerLine[];
}

export const BUSINESS_FIRST = [
  'Harbour',
  'Wattle',
  'Southern Cross',
  'Ironbark',
  'Coastal',
  'Bluegum',
  'Redgum',
  'Kookaburra',
  'Riverina',
  'Banksia',
  'Magpie',
  'Jacaranda',
] as const;

function line(
  category: Category,
  min: number,
  max: number,
  descriptions: readonly string[],
  parties: readonly string[],
): LedgerLine {
  return { category, min, max, descriptions, parties };
}

/** Repeats each line by its weight. */
function weighted(...entries: [number, LedgerLine][]): LedgerLine[] {
  return entries.flatMap(([w, l]) => Array.from({ length: w }, () => l));
}

// Documents most businesses receive, whatever they do.
const BANK = ['Westpac', 'CBA', 'NAB Business'];
const power = line('utilities', 180, 2400, ['Electricity bill', 'Gas supply'], ['AGL Energy', 'Origin Energy']);
const phone = line('utilities', 90, 450, ['Internet and phone', 'Mobile plan'], ['Telstra Business', 'Optus Business']);
const bankFees = line('financial_supply', 10, 95, ['Bank account fees', 'Merchant facility fee'], BANK);
const loanInterest = line('financial_supply', 150, 2800, ['Loan interest'], BANK);
const interestIn = line('financial_supply', 5, 400, ['Interest received'], BANK);
const accountant = line(
  'services',
  450,
  3500,
  ['Bookkeeping services', 'Tax agent fees'],
  ['Pitcher Accountants', 'Ledger Partners'],
);
const insurance = line('services', 300, 4800, ['Business insurance'], ['QBE Insurance', 'Allianz Business']);
const laptop = line(
  'equipment',
  900,
  3800,
  ['Laptop computer', 'Office desk and chair'],
  ['JB Hi-Fi Business', 'Officeworks'],
);
const stationery = line(
  'goods',
  8,
  240,
  ['Stationery', 'Printer toner', 'Cleaning supplies'],
  ['Officeworks', 'Woolworths', 'Bunnings'],
);
const staffFood = line('basic_food', 6, 120, ['Milk and tea for staff', 'Fruit for staff'], ['Woolworths', 'Coles']);
const staffCourse = line(
  'education',
  250,
  2400,
  ['First aid course', 'Staff training course'],
  ['TAFE NSW', 'St John Training'],
);
const repairs = line(
  'construction',
  160,
  4200,
  ['Plumbing repair', 'Electrical work', 'Air conditioner service'],
  ['Metro Plumbing', 'Sparky Bros', 'Coolair Services'],
);

const common = (): [number, LedgerLine][] => [
  [3, power],
  [2, phone],
  [2, bankFees],
  [1, accountant],
  [1, insurance],
  [2, stationery],
  [1, staffFood],
  [1, repairs],
];

/** The trades, each with its own sales and purchases. */
export const TRADES: readonly Trade[] = [
  {
    name: 'cafe',
    suffixes: ['Cafe', 'Espresso Bar', 'Kitchen'],
    saleShare: 0.45,
    sales: weighted(
      [6, line('hot_food', 350, 4200, ['Card takings', 'Cash takings'], ['Eftpos sales', 'Cash sales'])],
      [
        2,
        line(
          'hot_food',
          120,
          1900,
          ['Catering order', 'Delivery orders'],
          ['Uber Eats', 'Murray Legal', 'Lakeside School'],
        ),
      ],
      [
        2,
        line('basic_food', 15, 380, ['Bread and milk sales', 'Packaged coffee beans'], ['Eftpos sales', 'Cash sales']),
      ],
      [1, interestIn],
    ),
    purchases: weighted(
      [
        5,
        line(
          'basic_food',
          60,
          1600,
          ['Milk and dairy', 'Fruit and vegetables', 'Bread rolls', 'Coffee beans'],
          ['Bega Dairy', 'Harris Farm', 'Baker Bros', 'Campos Coffee'],
        ),
      ],
      [
        2,
        line(
          'goods',
          40,
          650,
          ['Takeaway cups and lids', 'Soft drinks for resale'],
          ['Detpak Supplies', 'Coca-Cola Europacific'],
        ),
      ],
      [
        1,
        line(
          'equipment',
          600,
          9500,
          ['Espresso machine', 'Commercial fridge'],
          ['Coffee Parts Co', 'Stoddart Catering'],
        ),
      ],
      [1, loanInterest],
      ...common(),
    ),
    receipts: [stationery, staffFood, line('goods', 5, 120, ['Ice and napkins'], ['Coles', 'Woolworths'])],
  },
  {
    name: 'GP clinic',
    suffixes: ['Medical Centre', 'Family Practice', 'Health Clinic'],
    saleShare: 0.4,
    sales: weighted(
      [
        7,
        line(
          'medical',
          45,
          2600,
          ['GP consultations', 'Medicare bulk billing', 'Skin check'],
          ['Medicare Benefits', 'Bupa Health', 'Patient payments'],
        ),
      ],
      [
        1,
        line(
          'services',
          60,
          900,
          ['Pre-employment medical report', 'Medico-legal report'],
          ['Murray Legal', 'Tasman Freight', 'Greenway Council'],
        ),
      ],
      [1, line('goods', 15, 240, ['Sunscreen and skin care'], ['Patient payments'])],
      [1, interestIn],
    ),
    purchases: weighted(
      [
        3,
        line('goods', 40, 1800, ['Gloves and dressings', 'Syringes and swabs'], ['Medshop', 'Independence Australia']),
      ],
      [2, line('medical', 90, 2600, ['Vaccines', 'Pathology tests'], ['Sonic Pathology', 'Symbion Pharmacy'])],
      [1, line('equipment', 800, 9500, ['ECG machine', 'Examination couch'], ['Device Technologies', 'Medshop'])],
      [
        1,
        line('services', 300, 2800, ['Practice software licence', 'Cleaning contract'], ['Best Practice', 'Jani-King']),
      ],
      [1, staffCourse],
      ...common(),
    ),
    receipts: [stationery, staffFood],
  },
  {
    name: 'training college',
    suffixes: ['College', 'Training Institute', 'Skills Academy'],
    saleShare: 0.4,
    sales: weighted(
      [
        6,
        line(
          'education',
          400,
          8500,
          ['Certificate IV tuition', 'Diploma course fees', 'Short course fees'],
          ['Student payments', 'NSW Skills Board', 'Geelong Motors'],
        ),
      ],
      [2, line('education', 3000, 24000, ['International student tuition'], ['Student payments', 'IDP Education'])],
      [1, line('goods', 30, 450, ['Textbooks and kits', 'Uniforms'], ['Student payments'])],
      [1, line('hot_food', 8, 900, ['Canteen sales'], ['Eftpos sales'])],
      [1, interestIn],
    ),
    purchases: weighted(
      [
        2,
        line(
          'services',
          500,
          9000,
          ['Online advertising', 'Course accreditation audit'],
          ['Seek Advertising', 'ASQA Services'],
        ),
      ],
      [2, laptop],
      [2, line('residential_rent', 1400, 3800, ['Student housing lease'], ['Ray White', 'LJ Hooker'])],
      [1, line('goods', 30, 1200, ['Training materials', 'Printed workbooks'], ['Officeworks', 'Snap Printing'])],
      [1, loanInterest],
      ...common(),
    ),
    receipts: [stationery, staffFood],
  },
  {
    name: 'IT consultancy',
    suffixes: ['IT Consulting', 'Digital', 'Tech Solutions'],
    saleShare: 0.4,
    sales: weighted(
      [
        6,
        line(
          'services',
          900,
          16000,
          ['IT support retainer', 'Network project', 'Software development'],
          ['Murray Legal', 'Pinnacle Dental', 'Greenway Council', 'Tasman Freight'],
        ),
      ],
      [
        2,
        line(
          'equipment',
          400,
          9000,
          ['Laptops supplied', 'Network switch supplied'],
          ['Pinnacle Dental', 'Lakeside School'],
        ),
      ],
      [
        2,
        line(
          'export',
          1500,
          28000,
          ['Software services to a NZ client', 'Cloud setup for a Singapore client'],
          ['Kiwi Logistics Ltd', 'Lion City Pte Ltd'],
        ),
      ],
      [1, interestIn],
    ),
    purchases: weighted(
      [
        3,
        line(
          'services',
          40,
          2600,
          ['Cloud hosting', 'Software subscriptions', 'Subcontract developer'],
          ['Amazon Web Services', 'Atlassian', 'Dev Contractors'],
        ),
      ],
      [
        3,
        line(
          'equipment',
          300,
          9500,
          ['Laptops for resale', 'Servers', 'Network switch'],
          ['Dell Technologies', 'Ingram Micro'],
        ),
      ],
      [1, laptop],
      [1, staffCourse],
      ...common(),
    ),
    receipts: [stationery, staffFood, line('goods', 9, 150, ['Cables and adaptors'], ['Jaycar', 'Officeworks'])],
  },
  {
    name: 'exporter',
    suffixes: ['Exports', 'Produce Exports', 'Trading Co'],
    saleShare: 0.35,
    sales: weighted(
      [
        6,
        line(
          'export',
          6000,
          90000,
          ['Beef consignment to Japan', 'Wine shipment to Singapore', 'Wool bales to China'],
          ['Tokyo Foods KK', 'Lion City Pte Ltd', 'Shanghai Textiles'],
        ),
      ],
      [2, line('goods', 400, 12000, ['Local wholesale order'], ['Mallee Farms', 'Hunter Valley Wines'])],
      [1, line('basic_food', 300, 6000, ['Local produce sales'], ['Harris Farm', 'Woolworths'])],
      [1, interestIn],
    ),
    purchases: weighted(
      [
        3,
        line(
          'services',
          800,
          12000,
          ['Freight forwarding', 'Customs brokerage', 'Cold storage'],
          ['Global Freight', 'DHL Global', 'Tasman Freight'],
        ),
      ],
      [2, line('basic_food', 2000, 40000, ['Produce bought for export'], ['Mallee Farms', 'Riverina Growers'])],
      [1, line('goods', 60, 3500, ['Packaging and pallets', 'Cartons and labels'], ['Visy Packaging', 'Chep Pallets'])],
      [1, line('residential_rent', 1200, 3000, ['Staff house rent'], ['Ray White', 'LJ Hooker'])],
      [1, loanInterest],
      ...common(),
    ),
    receipts: [stationery, staffFood],
  },
  {
    name: 'property manager',
    suffixes: ['Property Management', 'Realty', 'Rentals'],
    saleShare: 0.45,
    sales: weighted(
      [
        4,
        line(
          'services',
          150,
          3500,
          ['Management fees', 'Letting fee', 'Lease renewal fee'],
          ['Nguyen Family Trust', 'Acacia Holdings', 'Smith Super Fund'],
        ),
      ],
      [
        4,
        line(
          'residential_rent',
          1600,
          4200,
          ['Rent received for a unit', 'Rent received for a house'],
          ['Tenant payments'],
        ),
      ],
      [1, line('services', 500, 6500, ['Commercial lease fee'], ['Geelong Motors', 'Coral Reef Tours'])],
      [1, interestIn],
    ),
    purchases: weighted(
      [
        3,
        line(
          'construction',
          120,
          6500,
          ['Plumbing repair', 'Painting between tenants', 'Gutter cleaning'],
          ['Metro Plumbing', 'Fresh Coat Painters', 'Gutter Pros'],
        ),
      ],
      [
        2,
        line(
          'services',
          60,
          1600,
          ['Property listing', 'Tenant screening'],
          ['realestate.com.au', 'Domain Group', 'Tica Checks'],
        ),
      ],
      [1, line('equipment', 600, 4500, ['Office laptop', 'Key safe system'], ['JB Hi-Fi Business', 'Keysafe Co'])],
      ...common(),
    ),
    receipts: [
      stationery,
      staffFood,
      line('goods', 12, 140, ['Keys cut', 'Smoke alarm batteries'], ['Mister Minit', 'Bunnings']),
    ],
  },
  {
    name: 'grocer',
    suffixes: ['Fresh Grocer', 'Fruit Market', 'Grocers'],
    saleShare: 0.45,
    sales: weighted(
      [
        6,
        line(
          'basic_food',
          300,
          6500,
          ['Card takings for fresh food', 'Cash takings for fresh food'],
          ['Eftpos sales', 'Cash sales'],
        ),
      ],
      [
        3,
        line(
          'goods',
          80,
          2400,
          ['Card takings for soft drinks and snacks', 'Cash takings for cleaning products'],
          ['Eftpos sales', 'Cash sales'],
        ),
      ],
      [1, line('hot_food', 40, 900, ['Hot chicken sales'], ['Eftpos sales'])],
      [1, line('basic_food', 200, 2800, ['Wholesale fruit order'], ['Brightside Cafe', 'Lakeside School'])],
    ),
    purchases: weighted(
      [
        6,
        line(
          'basic_food',
          150,
          9000,
          ['Fruit and vegetables', 'Milk and eggs', 'Meat and fish'],
          ['Sydney Markets', 'Bega Dairy', 'Riverina Growers'],
        ),
      ],
      [
        2,
        line(
          'goods',
          80,
          3000,
          ['Soft drinks and chips', 'Cleaning products for resale'],
          ['Metcash', 'Coca-Cola Europacific'],
        ),
      ],
      [1, line('equipment', 700, 9000, ['Cool room', 'Cash register'], ['Stoddart Catering', 'Square Hardware'])],
      [1, loanInterest],
      ...common(),
    ),
    receipts: [stationery, line('goods', 5, 110, ['Paper bags', 'Price labels'], ['Bunnings', 'Officeworks'])],
  },
  {
    name: 'builder',
    suffixes: ['Building Co', 'Constructions', 'Builders'],
    saleShare: 0.3,
    sales: weighted(
      [
        7,
        line(
          'construction',
          2500,
          65000,
          ['Progress claim for a renovation', 'Extension stage payment', 'Bathroom renovation'],
          ['Nguyen Family Trust', 'Acacia Holdings', 'Smith and Jones'],
        ),
      ],
      [
        2,
        line('construction', 300, 4500, ['Maintenance call-out', 'Deck repair'], ['Sunset Realty', 'Greenway Council']),
      ],
      [1, interestIn],
    ),
    purchases: weighted(
      [
        5,
        line(
          'goods',
          80,
          9000,
          ['Timber and framing', 'Concrete', 'Plasterboard', 'Tiles'],
          ['Bunnings Trade', 'Boral', 'Beaumont Tiles'],
        ),
      ],
      [
        3,
        line(
          'construction',
          600,
          18000,
          ['Subcontract electrician', 'Subcontract plumber'],
          ['Sparky Bros', 'Metro Plumbing'],
        ),
      ],
      [2, line('equipment', 250, 9500, ['Excavator hire', 'Power tools'], ['Kennards Hire', 'Total Tools'])],
      [1, line('residential_rent', 1200, 3200, ['Site crew accommodation'], ['Ray White', 'LJ Hooker'])],
      [1, staffCourse],
      ...common(),
    ),
    receipts: [
      stationery,
      staffFood,
      line('goods', 6, 140, ['Screws and fixings', 'Safety gloves'], ['Bunnings', 'Total Tools']),
    ],
  },
  {
    name: 'pharmacy',
    suffixes: ['Pharmacy', 'Chemist'],
    saleShare: 0.45,
    sales: weighted(
      [
        5,
        line('medical', 150, 5000, ['Prescription medicines', 'PBS dispensing'], ['Eftpos sales', 'Medicare Benefits']),
      ],
      [
        4,
        line(
          'goods',
          120,
          3800,
          ['Cosmetics and vitamins', 'Card takings for toiletries'],
          ['Eftpos sales', 'Cash sales'],
        ),
      ],
      [1, line('services', 40, 600, ['Flu vaccination service'], ['Greenway Council', 'Patient payments'])],
    ),
    purchases: weighted(
      [
        5,
        line('medical', 500, 14000, ['Prescription stock', 'PBS medicines'], ['Symbion Pharmacy', 'Sigma Healthcare']),
      ],
      [3, line('goods', 200, 6000, ['Vitamins for resale', 'Cosmetics stock'], ['Sigma Healthcare', 'Blackmores'])],
      [
        1,
        line(
          'equipment',
          500,
          7000,
          ['Dispensary shelving', 'Point of sale system'],
          ['Shopfitters Co', 'Square Hardware'],
        ),
      ],
      [1, loanInterest],
      ...common(),
    ),
    receipts: [stationery, staffFood],
  },
];
