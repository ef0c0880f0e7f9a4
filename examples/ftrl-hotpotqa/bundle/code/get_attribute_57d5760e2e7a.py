ANSWERS = {"step 1.2 of \"Brown State Fishing Lake is in a country that has a population of how many inhabitants ?\"":"9,984"}

def get_attribute_57d5760e2e7a(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
