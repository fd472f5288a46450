"""The hemisphere-invariance certificate of Theorem 3.2 (``<z,x_j> - <x_i,x_j> m >= 0``), stored.

Produced once by :func:`verify.certificates.certify_hemisphere_invariance` (the inequality has no
parameters).  Stored data are not trusted: :func:`verify._depth.certify.invariance_certificate` loads
it with the strict reader and re-checks it exactly, and searches afresh if either step fails.
"""
DATA = {
 "format": "consensus-verify/sos-certificate",
 "version": 1,
 "kind": "nonnegativity",
 "label": "3.2 hemisphere invariance: <z,x_j> - <x_i,x_j> m >= 0",
 "claim": "-m*g + b_j >= 0 on {b_j - m >= 0, m >= 0, -g + 1 >= 0, g + 1 >= 0}",
 "variables": [
  "b_j",
  "m",
  "g"
 ],
 "polynomial": [
  [
   [
    0,
    1,
    1
   ],
   "-1"
  ],
  [
   [
    1,
    0,
    0
   ],
   "1"
  ]
 ],
 "ineqs": [
  [
   [
    [
     0,
     1,
     0
    ],
    "-1"
   ],
   [
    [
     1,
     0,
     0
    ],
    "1"
   ]
  ],
  [
   [
    [
     0,
     1,
     0
    ],
    "1"
   ]
  ],
  [
   [
    [
     0,
     0,
     0
    ],
    "1"
   ],
   [
    [
     0,
     0,
     1
    ],
    "-1"
   ]
  ],
  [
   [
    [
     0,
     0,
     0
    ],
    "1"
   ],
   [
    [
     0,
     0,
     1
    ],
    "1"
   ]
  ]
 ],
 "eqs": [],
 "sos_terms": [
  {
   "multiplier": [
    0
   ],
   "basis": [
    [
     0,
     0,
     0
    ]
   ],
   "gram": [
    [
     "21/64"
    ]
   ]
  },
  {
   "multiplier": [
    0,
    2
   ],
   "basis": [
    [
     0,
     0,
     0
    ]
   ],
   "gram": [
    [
     "43/128"
    ]
   ]
  },
  {
   "multiplier": [
    0,
    3
   ],
   "basis": [
    [
     0,
     0,
     0
    ]
   ],
   "gram": [
    [
     "43/128"
    ]
   ]
  },
  {
   "multiplier": [
    1,
    2
   ],
   "basis": [
    [
     0,
     0,
     0
    ]
   ],
   "gram": [
    [
     "1"
    ]
   ]
  }
 ],
 "eq_terms": []
}
